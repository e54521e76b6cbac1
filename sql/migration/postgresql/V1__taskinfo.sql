-- delay-task schema, version 1: live tasks and the log of every task (PostgreSQL 12+).
CREATE TABLE taskinfo (
    task_id      BIGINT  NOT NULL PRIMARY KEY,
    task_type    INT     NOT NULL,
    priority     INT     NOT NULL,
    execute_time BIGINT  NOT NULL,
    parameters   BYTEA   NULL,
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
    parameters   BYTEA         NULL,
    version      INT           NOT NULL DEFAULT 1,
    status       INT           NOT NULL DEFAULT 0,
    attempts     INT           NOT NULL DEFAULT 0,
    last_error   VARCHAR(2000) NULL
);
CREATE INDEX idx_taskinfo_logs_status ON taskinfo_logs (status, execute_time);
