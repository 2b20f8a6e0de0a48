-- The request rates' counters (issue 35: rate limits that hold across server processes;
-- referee/pgrates.py). One row per rate key ("LIMITER/<who>/<scope>/<amount>/<n>/<unit>").
--
-- UNLOGGED: no write-ahead log for them, so a hit costs no WAL flush and the rows never reach a
-- replica or a point-in-time backup. After a crash PostgreSQL empties the table, which is right
-- for counters: a client whose last minute is forgotten gets at most one window's requests
-- again, and the log of the games (events, secrets) is untouched.
--
-- hits: the moving window's hits, newest first, as seconds since 1970 (the acquire keeps only
-- those that can still count). value: the fixed window's counter. expires: the time after
-- which the row answers nothing (its newest hit plus the window, or its counter's end), which
-- the global prune deletes by.

CREATE UNLOGGED TABLE rate_hits (
    key TEXT COLLATE "C" PRIMARY KEY,
    hits DOUBLE PRECISION[] NOT NULL DEFAULT '{}',
    value BIGINT NOT NULL DEFAULT 0,
    expires DOUBLE PRECISION NOT NULL
);

CREATE INDEX rate_hits_expires ON rate_hits (expires);

-- One moving-window acquire, as limits' MemoryStorage decides it: refused when `amount` more
-- hits would make more than `lim` hits at or after `now - expiry`; else `amount` hits at `now`.
-- `now` NULL: the database's clock (one clock for every process). Serialised per key by a
-- transaction-scoped advisory lock, so two processes cannot both take the last slot; the
-- caller runs it as its own transaction (autocommit), so the lock ends with the call.
CREATE FUNCTION rate_acquire(k TEXT, lim INTEGER, expiry DOUBLE PRECISION, amount INTEGER,
                             at DOUBLE PRECISION) RETURNS BOOLEAN
LANGUAGE plpgsql AS $$
DECLARE
    t DOUBLE PRECISION;
    kept DOUBLE PRECISION[];
BEGIN
    IF amount > lim THEN
        RETURN FALSE;
    END IF;
    -- the two-number form: its own key space, apart from the one-number locks (upgrade's);
    -- 1918989413 is 'rate' in ASCII
    PERFORM pg_advisory_xact_lock(1918989413, hashtext(k));
    t := COALESCE(at, extract(epoch FROM clock_timestamp()));
    SELECT COALESCE(array_agg(h ORDER BY h DESC), '{}') INTO kept
        FROM rate_hits r, unnest(r.hits) h WHERE r.key = k AND h >= t - expiry;
    IF cardinality(kept) + amount > lim THEN
        RETURN FALSE;
    END IF;
    kept := array_fill(t, ARRAY[amount]) || kept;
    INSERT INTO rate_hits AS r (key, hits, expires) VALUES (k, kept, t + expiry)
        ON CONFLICT (key) DO UPDATE SET hits = EXCLUDED.hits, expires = EXCLUDED.expires;
    RETURN TRUE;
END
$$;

-- One fixed-window increment, as limits' MemoryStorage counts: a counter past its end starts
-- again at `amount`, ending `expiry` seconds from `now` (NULL: the database's clock). One
-- statement: the row's lock serialises two processes on one key.
CREATE FUNCTION rate_incr(k TEXT, expiry DOUBLE PRECISION, amount INTEGER,
                          at DOUBLE PRECISION) RETURNS BIGINT
LANGUAGE plpgsql AS $$
DECLARE
    t DOUBLE PRECISION := COALESCE(at, extract(epoch FROM clock_timestamp()));
    v BIGINT;
BEGIN
    INSERT INTO rate_hits AS r (key, value, expires) VALUES (k, amount, t + expiry)
        ON CONFLICT (key) DO UPDATE SET
            value = CASE WHEN r.expires <= t THEN amount ELSE r.value + amount END,
            expires = CASE WHEN r.expires <= t OR r.value = 0 THEN t + expiry
                           ELSE r.expires END
        RETURNING r.value INTO v;
    RETURN v;
END
$$;
