-- delay-task schema for MySQL 8 and MariaDB 10.5+. Safe to run again: it creates only what is missing.
-- Times are epoch milliseconds (BIGINT), so no time zone of the JVM, the driver or the session can shift them.

-- Tasks not finished yet: what the reload job reads and the dispatcher claims.
CREATE TABLE IF NOT EXISTS taskinfo (
    task_id      BIGINT      NOT NULL COMMENT 'task id (snowflake unless given)',
    task_type    INT         NOT NULL,
    priority     INT         NOT NULL,
    execute_time BIGINT      NOT NULL COMMENT 'due time, epoch ms',
    parameters   MEDIUMBLOB  NULL,
    version      INT         NOT NULL DEFAULT 1 COMMENT 'optimistic lock',
    attempts     INT         NOT NULL DEFAULT 0 COMMENT 'times handed to a consumer',
    lease_until  BIGINT      NULL COMMENT 'while a consumer holds the task: end of its lease, epoch ms',
    biz_key      VARCHAR(191) NULL COMMENT 'business key, unique among live tasks',
    PRIMARY KEY (task_id),
    KEY idx_taskinfo_execute_time (execute_time, task_id),
    UNIQUE KEY uk_taskinfo_biz_key (biz_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- Every task, with its final status: 0 scheduled, 1 executed, 2 cancelled, 3 dead.
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
    biz_key      VARCHAR(191)  NULL,
    PRIMARY KEY (task_id),
    KEY idx_taskinfo_logs_status (status, task_id),
    KEY idx_taskinfo_logs_biz_key (biz_key)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
