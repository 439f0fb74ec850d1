-- schema.sql - the ClickHouse table vxreplay --export clickhouse+http://... and
-- vxrecord --sink create when it is missing (formats/clickhouse.md); the
-- database and table names are the URL's, vxtrace.events here.
CREATE DATABASE IF NOT EXISTS vxtrace;
CREATE TABLE IF NOT EXISTS vxtrace.events (
    host String,          -- the capturing host (the trace header's)
    object String,        -- sda, dm-0 ...
    time UInt64,          -- CLOCK_MONOTONIC of the host, ns
    wall_ns UInt64,       -- wall clock, ns since 1970 (from the trace's clock anchor)
    trace UInt64,         -- the trace file's id (a hash of its header)
    seq UInt64,           -- the event's ordinal in its trace
    phase String,         -- start, done, requeue, lost, queue ...
    op String,            -- read, write, flush, discard, write-zeroes, passthru, other
    flags UInt16,         -- VXT_F_* bits (formats/vxt.md)
    sector UInt64,        -- first 512-byte sector (lost: the count lost)
    bytes UInt32,
    latency_ns UInt64,    -- done: time since start, 0 if unknown
    error Int16,          -- the errno (positive), 0 = ok
    pid UInt32,
    comm String,
    cpu UInt16
) ENGINE = ReplacingMergeTree()
ORDER BY (host, object, time, trace, seq);

-- Count with FINAL: a batch sent twice (the server died before it answered)
-- is folded into one copy by the merge; FINAL folds it at query time.
-- SELECT count(), countIf(error != 0) FROM vxtrace.events FINAL;
-- SELECT host, object, toStartOfMinute(toDateTime(intDiv(wall_ns, 1000000000))) AS m,
--        countIf(error != 0) FROM vxtrace.events FINAL GROUP BY host, object, m ORDER BY m;
