-- delay-task schema for MySQL 8 and MariaDB 10.6+. Safe to run again: it creates only what is missing.
-- Times are epoch milliseconds (BIGINT), so no time zone of the JVM, the driver or the session can shift them.
-- Business keys are bytes (the UTF-8 of up to 191 characters): a key compares exactly, where a text column takes the
-- table's collation, under which 'order:AbC' = 'order:abc', 'k' = 'k ' and 'cafe' = 'café'; no collation is exact
-- on both MySQL 8 and MariaDB (utf8mb4_bin ignores trailing spaces on both).

-- Tasks not finished yet: what the reload job reads and the dispatcher claims.
CREATE TABLE IF NOT EXISTS taskinfo (
    task_id      BIGINT      NOT NULL COMMENT 'task id (snowflake unless given)',
    task_type    INT         NOT NULL,
    priority     INT         NOT NULL,
    execute_time BIGINT      NOT NULL COMMENT 'due time, epoch ms',
    parameters   MEDIUMBLOB  NULL,
    version      INT         NOT NULL DEFAULT 1 COMMENT 'optimistic lock',
    attempts     INT         NOT NULL DEFAULT 0 COMMENT 'runs of its handler that failed',
    lease_until  BIGINT      NULL COMMENT 'while a consumer holds the task: end of its lease, epoch ms',
    biz_key      VARBINARY(764) NULL COMMENT 'business key, unique among live tasks; compared byte for byte',
    trace_context VARCHAR(1000) NULL COMMENT 'context the add carries to its handler: trace (delay-task.observation.enabled), delay-task.context',
    PRIMARY KEY (task_id),
    KEY idx_taskinfo_execute_time (execute_time, task_id),
    UNIQUE KEY uk_taskinfo_biz_key (biz_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- Every task, with its final status: 0 scheduled, 1 executed, 2 cancelled, 3 dead. The purge job deletes finished
-- tasks once they are older than delay-task.history.retention, oldest first, through idx_taskinfo_logs_finished.
CREATE TABLE IF NOT EXISTS taskinfo_logs (
    task_id      BIGINT        NOT NULL,
    task_type    INT           NOT NULL,
    priority     INT           NOT NULL,
    execute_time BIGINT        NOT NULL COMMENT 'due time, epoch ms',
    parameters   MEDIUMBLOB    NULL,
    version      INT           NOT NULL DEFAULT 1 COMMENT 'optimistic lock',
    status       INT           NOT NULL DEFAULT 0,
    attempts     INT           NOT NULL DEFAULT 0,
    last_error   VARCHAR(2000) NULL,
    biz_key      VARBINARY(764) NULL,
    finished_at  BIGINT        NULL COMMENT 'when it became executed, cancelled or dead, epoch ms by the database clock; NULL while live',
    trace_context VARCHAR(1000) NULL COMMENT 'of a dead task: the context its add carried, for its requeue',
    PRIMARY KEY (task_id),
    KEY idx_taskinfo_logs_status (status, task_id),
    KEY idx_taskinfo_logs_biz_key (biz_key),
    KEY idx_taskinfo_logs_finished (status, finished_at, execute_time)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- One row: the id of this task store, created with the schema. Redis keys and locks start with it unless a prefix is
-- configured, so that applications with databases of their own never share them in one Redis.
CREATE TABLE IF NOT EXISTS taskinfo_store (
    id           INT          NOT NULL,
    store_id     VARCHAR(36)  NOT NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
INSERT IGNORE INTO taskinfo_store (id, store_id) VALUES (1, REPLACE(UUID(), '-', ''));

-- Recurring schedules: each adds an ordinary task at each of its times, with the business key
-- schedule:<name>@<time>, and keeps the first time whose task is not stored yet in next_time, which the add of the
-- task moves on in the same transaction.
CREATE TABLE IF NOT EXISTS taskinfo_schedule (
    name         VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    task_type    INT          NOT NULL,
    priority     INT          NOT NULL,
    cron         VARCHAR(200) NULL COMMENT 'cron expression, as Spring reads it; NULL for an interval',
    time_zone    VARCHAR(64)  NULL COMMENT 'time zone of the cron expression',
    interval_ms  BIGINT       NULL COMMENT 'interval, ms; NULL for a cron expression',
    parameters   MEDIUMBLOB   NULL COMMENT 'parameters of each of its tasks',
    catch_up     VARCHAR(8)   NOT NULL COMMENT 'ONCE, EACH or SKIP: what to do about times missed',
    declaration  VARCHAR(64)  NULL COMMENT 'digest of the declaration in code last applied; NULL if saved at run time',
    paused       INT          NOT NULL DEFAULT 0 COMMENT '0 active, 1 paused, 2 paused as no longer declared in code',
    next_time    BIGINT       NOT NULL COMMENT 'first time whose task is not stored yet, epoch ms',
    version      INT          NOT NULL DEFAULT 1 COMMENT 'optimistic lock',
    PRIMARY KEY (name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- the locks of @DistributedLock when delay-task.lock.store is database
CREATE TABLE IF NOT EXISTS taskinfo_lock (
    name            VARCHAR(255)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    lock_until      BIGINT        NOT NULL COMMENT 'when it lapses, epoch ms by the database clock; past when free',
    locked_at       BIGINT        NOT NULL COMMENT 'when its holder took it, epoch ms by the database clock',
    locked_by       VARCHAR(64)   NOT NULL COMMENT 'random token of the holder',
    run_id          VARCHAR(64)   NULL COMMENT 'latest run of the locked job',
    run_host        VARCHAR(255)  NULL COMMENT 'host of the instance that ran it',
    run_pid         BIGINT        NULL COMMENT 'process id of the instance that ran it',
    run_started_at  BIGINT        NULL COMMENT 'when it started, epoch ms by its instance clock',
    run_finished_at BIGINT        NULL COMMENT 'when it ended, epoch ms; NULL while it runs',
    run_duration_ms BIGINT        NULL COMMENT 'how long it took, ms; NULL while it runs',
    run_outcome     VARCHAR(16)   NULL COMMENT 'RUNNING, SUCCEEDED or FAILED',
    run_error       VARCHAR(1000) NULL COMMENT 'what a failed run threw',
    PRIMARY KEY (name)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- the paused queues when delay-task runs without Redis (delay-task.redis.enabled=false): a row per paused queue
CREATE TABLE IF NOT EXISTS taskinfo_queue (
    task_type  INT     NOT NULL,
    priority   INT     NOT NULL,
    paused_at  BIGINT  NOT NULL COMMENT 'when it was paused, epoch ms by the database clock',
    PRIMARY KEY (task_type, priority)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
