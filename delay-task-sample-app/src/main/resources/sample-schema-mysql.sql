-- The sample's own tables, for MySQL and MariaDB. The starter creates its tables (taskinfo, taskinfo_logs) itself.

CREATE TABLE IF NOT EXISTS sample_order (
    id      BIGINT AUTO_INCREMENT PRIMARY KEY,
    status  VARCHAR(16) NOT NULL,
    task_id BIGINT
);

CREATE TABLE IF NOT EXISTS sample_call (
    id           BIGINT AUTO_INCREMENT PRIMARY KEY,
    attempts     INT         NOT NULL,
    max_attempts INT         NOT NULL,
    status       VARCHAR(16) NOT NULL
);
