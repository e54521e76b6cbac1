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
