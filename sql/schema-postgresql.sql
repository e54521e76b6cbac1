-- delay-task schema for PostgreSQL 12+. Safe to run again: it creates only what is missing.
-- Times are epoch milliseconds (BIGINT), so no time zone of the JVM, the driver or the session can shift them.

-- Tasks not finished yet: what the reload job reads and the dispatcher claims.
CREATE TABLE IF NOT EXISTS taskinfo (
    task_id      BIGINT  NOT NULL PRIMARY KEY,
    task_type    INT     NOT NULL,
    priority     INT     NOT NULL,
    execute_time BIGINT  NOT NULL,
    parameters   BYTEA   NULL,
    version      INT     NOT NULL DEFAULT 1,
    attempts     INT     NOT NULL DEFAULT 0,
    lease_until  BIGINT  NULL,
    biz_key      VARCHAR(191) NULL,
    -- the context the task's add carries to its handler, one field=value line per field: the trace's
    -- (delay-task.observation.enabled) and the application's (delay-task.context, TaskContextPropagator beans)
    trace_context VARCHAR(1000) NULL
);
-- schemas of earlier versions lack the carried context, which only observations and carried context need: added by hand
-- (see the README), as an ALTER TABLE here would lock this busy table at every start, even with the column there
CREATE INDEX IF NOT EXISTS idx_taskinfo_execute_time ON taskinfo (execute_time, task_id);
-- a business key is unique among live tasks; finished tasks leave taskinfo and free their key. Partial, as most
-- tasks have none and a NULL entry per task would slow every add (all of them land on the same index page)
CREATE UNIQUE INDEX IF NOT EXISTS uk_taskinfo_biz_key ON taskinfo (biz_key) WHERE biz_key IS NOT NULL;

-- Every task, with its final status: 0 scheduled, 1 executed, 2 cancelled, 3 dead. The purge job deletes finished
-- tasks once they are older than delay-task.history.retention, oldest first, through idx_taskinfo_logs_finished.
CREATE TABLE IF NOT EXISTS taskinfo_logs (
    task_id      BIGINT        NOT NULL PRIMARY KEY,
    task_type    INT           NOT NULL,
    priority     INT           NOT NULL,
    execute_time BIGINT        NOT NULL,
    parameters   BYTEA         NULL,
    version      INT           NOT NULL DEFAULT 1,
    status       INT           NOT NULL DEFAULT 0,
    attempts     INT           NOT NULL DEFAULT 0,
    last_error   VARCHAR(2000) NULL,
    biz_key      VARCHAR(191)  NULL,
    -- when it became executed, cancelled or dead, epoch ms by the database clock; NULL while live
    finished_at  BIGINT        NULL,
    -- of a dead task: the context its add carried (as taskinfo.trace_context), for its requeue. Optional: schemas of
    -- earlier versions lack it, and a requeue then runs without it; added by hand (see the README)
    trace_context VARCHAR(1000) NULL
);
CREATE INDEX IF NOT EXISTS idx_taskinfo_logs_status ON taskinfo_logs (status, task_id);
-- partial, as above
CREATE INDEX IF NOT EXISTS idx_taskinfo_logs_biz_key ON taskinfo_logs (biz_key) WHERE biz_key IS NOT NULL;
-- schemas of earlier versions lack the finishing time: added here (a change of the catalog only, no rewrite); rows
-- finished before have none, and the purge goes by their execute_time
ALTER TABLE taskinfo_logs ADD COLUMN IF NOT EXISTS finished_at BIGINT NULL;
-- the purge's index: the oldest rows of a final status first; execute_time for the rows without a finishing time.
-- Partial, so that an add writes no entry into it: only finished tasks have one
CREATE INDEX IF NOT EXISTS idx_taskinfo_logs_finished ON taskinfo_logs (status, finished_at, execute_time)
    WHERE status <> 0;

-- One row: the id of this task store, created with the schema. Redis keys and locks start with it unless a prefix is
-- configured, so that applications with databases of their own never share them in one Redis.
CREATE TABLE IF NOT EXISTS taskinfo_store (
    id           INT          NOT NULL PRIMARY KEY,
    store_id     VARCHAR(36)  NOT NULL
);
INSERT INTO taskinfo_store (id, store_id) VALUES (1, md5(random()::text || clock_timestamp()::text))
ON CONFLICT (id) DO NOTHING;

-- Recurring schedules: each adds an ordinary task at each of its times, with the business key
-- schedule:<name>@<time>, and keeps the first time whose task is not stored yet in next_time, which the add of the
-- task moves on in the same transaction.
CREATE TABLE IF NOT EXISTS taskinfo_schedule (
    name         VARCHAR(100) NOT NULL PRIMARY KEY,
    task_type    INT          NOT NULL,
    priority     INT          NOT NULL,
    cron         VARCHAR(200) NULL,
    time_zone    VARCHAR(64)  NULL,
    interval_ms  BIGINT       NULL,
    parameters   BYTEA        NULL,
    catch_up     VARCHAR(8)   NOT NULL,
    declaration  VARCHAR(64)  NULL,
    paused       INT          NOT NULL DEFAULT 0,
    next_time    BIGINT       NOT NULL,
    version      INT          NOT NULL DEFAULT 1
);

-- the locks of @DistributedLock when delay-task.lock.store is database
CREATE TABLE IF NOT EXISTS taskinfo_lock (
    name            VARCHAR(255)  NOT NULL PRIMARY KEY,
    lock_until      BIGINT        NOT NULL,
    locked_at       BIGINT        NOT NULL,
    locked_by       VARCHAR(64)   NOT NULL,
    run_id          VARCHAR(64)   NULL,
    run_host        VARCHAR(255)  NULL,
    run_pid         BIGINT        NULL,
    run_started_at  BIGINT        NULL,
    run_finished_at BIGINT        NULL,
    run_duration_ms BIGINT        NULL,
    run_outcome     VARCHAR(16)   NULL,
    run_error       VARCHAR(1000) NULL
);

-- the paused queues when delay-task runs without Redis (delay-task.redis.enabled=false): a row per paused queue
CREATE TABLE IF NOT EXISTS taskinfo_queue (
    task_type  INT     NOT NULL,
    priority   INT     NOT NULL,
    paused_at  BIGINT  NOT NULL,
    PRIMARY KEY (task_type, priority)
);
