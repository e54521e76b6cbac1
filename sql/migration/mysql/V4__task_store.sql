-- delay-task schema, version 4: the id of this task store, which the Redis keys start with unless a prefix is set.
CREATE TABLE taskinfo_store (
    id           INT          NOT NULL,
    store_id     VARCHAR(36)  NOT NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
INSERT INTO taskinfo_store (id, store_id) VALUES (1, REPLACE(UUID(), '-', ''));
