"""Games that exist only in the tests (registered by a fixture; see ``tiny``)."""
