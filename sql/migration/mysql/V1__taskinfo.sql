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
