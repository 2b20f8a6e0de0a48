-- The log and the secrets, as the SQLite store keeps them (referee/store.py): a record is its
-- stored form (the exact bytes its hash is over, its sealed values, nonce and signature) or,
-- where it has none, its JSON line. Every text column compares byte by byte (COLLATE "C"), so
-- listings sort as the other stores sort and times in text compare as times.

CREATE TABLE events (
    game TEXT COLLATE "C" NOT NULL,
    seq BIGINT NOT NULL CHECK (seq >= 0),
    key TEXT COLLATE "C",
    hash TEXT COLLATE "C" NOT NULL,
    line TEXT COLLATE "C" NOT NULL,
    hashed BYTEA,
    opened BYTEA,
    nonce TEXT COLLATE "C",
    sig TEXT COLLATE "C",
    PRIMARY KEY (game, seq)
);

-- an idempotency key ("seat:key") names one record of its game
CREATE UNIQUE INDEX events_key ON events (game, key) WHERE key IS NOT NULL;

CREATE TABLE secrets (
    game TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    value TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (game, name)
);
