"""The phone web app (Flask). Arrives with its own issue."""
