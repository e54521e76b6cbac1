-- delay-task schema, version 6: the context an add carries to its handler (the trace's, the application's).
ALTER TABLE taskinfo ADD COLUMN trace_context VARCHAR(1000) NULL;
