--liquibase formatted sql
-- delay-task schema as a Liquibase changelog (mysql): the changesets are the Flyway versions of
-- sql/migration/mysql, one for one, so that either tool makes the schema sql/schema-mysql.sql makes. Labelled
-- delay-task, so that changelog-sync --label-filter=delay-task marks only these applied.

--changeset delay-task:1 labels:delay-task
-- delay-task schema, version 1: live tasks and the log of every task (MySQL 8, MariaDB 10.6+).
CREATE TABLE taskinfo (
    task_id      BIGINT      NOT NULL COMMENT 'task id (snowflake unless given)',
    task_type    INT         NOT NULL,
    priority     INT         NOT NULL,
    execute_time BIGINT      NOT NULL COMMENT 'due time, epoch ms',
    parameters   MEDIUMBLOB  NULL,
    version      INT         NOT NULL DEFAULT 1 COMMENT 'optimistic lock',
    attempts     INT         NOT NULL DEFAULT 0 COMMENT 'runs of its handler that failed',
    lease_until  BIGINT      NULL COMMENT 'while a consumer holds the task: end of its lease, epoch ms',
    PRIMARY KEY (task_id),
    KEY idx_taskinfo_execute_time (execute_time, task_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

CREATE TABLE taskinfo_logs (
    task_id      BIGINT        NOT NULL,
    task_type    INT           NOT NULL,
    priority     INT           NOT NULL,
    execute_time BIGINT        NOT NULL COMMENT 'due time, epoch ms',
    parameters   MEDIUMBLOB    NULL,
    version      INT           NOT NULL DEFAULT 1 COMMENT 'optimistic lock',
    status       INT           NOT NULL DEFAULT 0,
    attempts     INT           NOT NULL DEFAULT 0,
    last_error   VARCHAR(2000) NULL,
    PRIMARY KEY (task_id),
    KEY idx_taskinfo_logs_status (status, execute_time)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

--changeset delay-task:2 labels:delay-task
-- delay-task schema, version 2: business keys, unique among live tasks; dead tasks listed by id.
ALTER TABLE taskinfo
    ADD COLUMN biz_key VARCHAR(191) NULL COMMENT 'business key, unique among live tasks',
    ADD UNIQUE KEY uk_taskinfo_biz_key (biz_key);
ALTER TABLE taskinfo_logs
    ADD COLUMN biz_key VARCHAR(191) NULL,
    DROP KEY idx_taskinfo_logs_status,
    ADD KEY idx_taskinfo_logs_status (status, task_id),
    ADD KEY idx_taskinfo_logs_biz_key (biz_key);

--changeset delay-task:3 labels:delay-task
-- delay-task schema, version 3: business keys compare byte for byte (the UTF-8 of up to 191 characters), where a
-- text column takes the table's collation, under which 'order:AbC' = 'order:abc' and 'k' = 'k '.
ALTER TABLE taskinfo
    MODIFY COLUMN biz_key VARBINARY(764) NULL COMMENT 'business key, unique among live tasks; compared byte for byte';
ALTER TABLE taskinfo_logs
    MODIFY COLUMN biz_key VARBINARY(764) NULL;

--changeset delay-task:4 labels:delay-task
-- delay-task schema, version 4: the id of this task store, which the Redis keys start with unless a prefix is set.
CREATE TABLE taskinfo_store (
    id           INT          NOT NULL,
    store_id     VARCHAR(36)  NOT NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
INSERT INTO taskinfo_store (id, store_id) VALUES (1, REPLACE(UUID(), '-', ''));

--changeset delay-task:5 labels:delay-task
-- delay-task schema, version 5: when each task finished, and the history purge's index; online: the column is
-- added at once (MySQL 8.0.12+, MariaDB 10.3+) and the index is built while writes go on.
ALTER TABLE taskinfo_logs ADD COLUMN finished_at BIGINT NULL
    COMMENT 'when it became executed, cancelled or dead, epoch ms by the database clock; NULL while live',
    ALGORITHM = INSTANT;
ALTER TABLE taskinfo_logs ADD INDEX idx_taskinfo_logs_finished (status, finished_at, execute_time),
    ALGORITHM = INPLACE, LOCK = NONE;

--changeset delay-task:6 labels:delay-task
-- delay-task schema, version 6: the context an add carries to its handler (the trace's, the application's).
ALTER TABLE taskinfo
    ADD COLUMN trace_context VARCHAR(1000) NULL COMMENT 'context the add carries to its handler: trace (delay-task.observation.enabled), delay-task.context';

--changeset delay-task:7 labels:delay-task
-- delay-task schema, version 7: a dead task keeps the context its add carried, for its requeue.
ALTER TABLE taskinfo_logs
    ADD COLUMN trace_context VARCHAR(1000) NULL COMMENT 'of a dead task: the context its add carried, for its requeue';

--changeset delay-task:8 labels:delay-task
-- delay-task schema, version 8: recurring schedules.
CREATE TABLE taskinfo_schedule (
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

--changeset delay-task:9 labels:delay-task
-- delay-task schema, version 9: the locks of @DistributedLock when delay-task.lock.store is database.
CREATE TABLE taskinfo_lock (
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

--changeset delay-task:10 labels:delay-task
-- delay-task schema, version 10: the paused queues when delay-task runs without Redis.
CREATE TABLE taskinfo_queue (
    task_type  INT     NOT NULL,
    priority   INT     NOT NULL,
    paused_at  BIGINT  NOT NULL COMMENT 'when it was paused, epoch ms by the database clock',
    PRIMARY KEY (task_type, priority)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
