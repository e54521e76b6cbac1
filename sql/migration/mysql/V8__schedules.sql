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
