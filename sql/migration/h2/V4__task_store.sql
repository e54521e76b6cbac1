-- delay-task schema, version 4: the id of this task store, which the Redis keys start with unless a prefix is set.
CREATE TABLE taskinfo_store (
    id           INT          NOT NULL PRIMARY KEY,
    store_id     VARCHAR(36)  NOT NULL
);
INSERT INTO taskinfo_store (id, store_id) VALUES (1, REPLACE(CAST(RANDOM_UUID() AS VARCHAR), '-', ''));
