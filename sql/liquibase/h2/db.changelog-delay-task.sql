--liquibase formatted sql
-- delay-task schema as a Liquibase changelog (h2): the changesets are the Flyway versions of
-- sql/migration/h2, one for one, so that either tool makes the schema sql/schema-h2.sql makes. Labelled
-- delay-task, so that changelog-sync --label-filter=delay-task marks only these applied.

--changeset delay-task:1 labels:delay-task
-- delay-task schema, version 1: live tasks and the log of every task (H2).
CREATE TABLE taskinfo (
    task_id      BIGINT  NOT NULL PRIMARY KEY,
    task_type    INT     NOT NULL,
    priority     INT     NOT NULL,
    execute_time BIGINT  NOT NULL,
    parameters   BLOB    NULL,
    version      INT     NOT NULL DEFAULT 1,
    attempts     INT     NOT NULL DEFAULT 0,
    lease_until  BIGINT  NULL
);
CREATE INDEX idx_taskinfo_execute_time ON taskinfo (execute_time, task_id);

CREATE TABLE taskinfo_logs (
    task_id      BIGINT        NOT NULL PRIMARY KEY,
    task_type    INT           NOT NULL,
    priority     INT           NOT NULL,
    execute_time BIGINT        NOT NULL,
    parameters   BLOB          NULL,
    version      INT           NOT NULL DEFAULT 1,
    status       INT           NOT NULL DEFAULT 0,
    attempts     INT           NOT NULL DEFAULT 0,
    last_error   VARCHAR(2000) NULL
);
CREATE INDEX idx_taskinfo_logs_status ON taskinfo_logs (status, execute_time);

--changeset delay-task:2 labels:delay-task
-- delay-task schema, version 2: business keys, unique among live tasks; dead tasks listed by id.
ALTER TABLE taskinfo ADD COLUMN biz_key VARCHAR(191) NULL;
CREATE UNIQUE INDEX uk_taskinfo_biz_key ON taskinfo (biz_key);
ALTER TABLE taskinfo_logs ADD COLUMN biz_key VARCHAR(191) NULL;
DROP INDEX idx_taskinfo_logs_status;
CREATE INDEX idx_taskinfo_logs_status ON taskinfo_logs (status, task_id);
CREATE INDEX idx_taskinfo_logs_biz_key ON taskinfo_logs (biz_key);
-- version 3 changed the business keys of MySQL and PostgreSQL only

--changeset delay-task:4 labels:delay-task
-- delay-task schema, version 4: the id of this task store, which the Redis keys start with unless a prefix is set.
CREATE TABLE taskinfo_store (
    id           INT          NOT NULL PRIMARY KEY,
    store_id     VARCHAR(36)  NOT NULL
);
INSERT INTO taskinfo_store (id, store_id) VALUES (1, REPLACE(CAST(RANDOM_UUID() AS VARCHAR), '-', ''));

--changeset delay-task:5 labels:delay-task
-- delay-task schema, version 5: when each task finished, and the history purge's index.
ALTER TABLE taskinfo_logs ADD COLUMN finished_at BIGINT NULL;
CREATE INDEX idx_taskinfo_logs_finished ON taskinfo_logs (status, finished_at, execute_time);

--changeset delay-task:6 labels:delay-task
-- delay-task schema, version 6: the context an add carries to its handler (the trace's, the application's).
ALTER TABLE taskinfo ADD COLUMN trace_context VARCHAR(1000) NULL;

--changeset delay-task:7 labels:delay-task
-- delay-task schema, version 7: a dead task keeps the context its add carried, for its requeue.
ALTER TABLE taskinfo_logs ADD COLUMN trace_context VARCHAR(1000) NULL;

--changeset delay-task:8 labels:delay-task
-- delay-task schema, version 8: recurring schedules.
CREATE TABLE taskinfo_schedule (
    name         VARCHAR(100) NOT NULL PRIMARY KEY,
    task_type    INT          NOT NULL,
    priority     INT          NOT NULL,
    cron         VARCHAR(200) NULL,
    time_zone    VARCHAR(64)  NULL,
    interval_ms  BIGINT       NULL,
    parameters   BLOB         NULL,
    catch_up     VARCHAR(8)   NOT NULL,
    declaration  VARCHAR(64)  NULL,
    paused       INT          NOT NULL DEFAULT 0,
    next_time    BIGINT       NOT NULL,
    version      INT          NOT NULL DEFAULT 1
);

--changeset delay-task:9 labels:delay-task
-- delay-task schema, version 9: the locks of @DistributedLock when delay-task.lock.store is database.
CREATE TABLE taskinfo_lock (
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

--changeset delay-task:10 labels:delay-task
-- delay-task schema, version 10: the paused queues when delay-task runs without Redis.
CREATE TABLE taskinfo_queue (
    task_type  INT     NOT NULL,
    priority   INT     NOT NULL,
    paused_at  BIGINT  NOT NULL,
    PRIMARY KEY (task_type, priority)
);
