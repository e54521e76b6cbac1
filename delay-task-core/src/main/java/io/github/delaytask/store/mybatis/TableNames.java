package io.github.delaytask.store.mybatis;

import java.util.regex.Pattern;

import org.springframework.util.Assert;

/**
 * The names of the starter's tables and indexes under {@code delay-task.jdbc.table-prefix}: {@code taskinfo},
 * {@code taskinfo_logs}, {@code taskinfo_store}, {@code taskinfo_schedule}, {@code taskinfo_lock} and
 * {@code taskinfo_queue}, and every index named after them, each with the prefix before {@code taskinfo}, so that
 * several applications, or two starters, share one database without meeting in a table (or, on PostgreSQL, in an
 * index name, which is per schema). Public for wiring.
 * <p>
 * The starter's statements and schema scripts are written with the plain names, and pass through {@link #sql} on
 * their way to the database.
 */
public final class TableNames {

    /** The plain names. */
    public static final TableNames NONE = new TableNames("");

    private static final String STEM = "taskinfo";

    /** Lower case, as PostgreSQL folds unquoted names to lower case and MySQL on Linux compares them exactly. */
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]*");

    /**
     * The longest prefix: the longest name, {@code idx_taskinfo_logs_finished} (26 characters), must stay within
     * PostgreSQL's 63 and MySQL's 64.
     */
    static final int MAX_PREFIX_LENGTH = 32;

    private final String prefix;

    private TableNames(String prefix) {
        this.prefix = prefix;
    }

    /**
     * @param prefix empty for the plain names; otherwise lower-case letters, digits and underscores, starting with a
     * letter, at most 32 characters
     * @throws IllegalArgumentException for any other prefix
     */
    public static TableNames withPrefix(String prefix) {
        if (prefix == null || prefix.isEmpty()) {
            return NONE;
        }
        Assert.isTrue(PREFIX.matcher(prefix).matches() && prefix.length() <= MAX_PREFIX_LENGTH,
                () -> "delay-task.jdbc.table-prefix is '" + prefix + "': a table prefix is 1 to " + MAX_PREFIX_LENGTH
                        + " lower-case letters, digits or '_', starting with a letter (such as 'billing_')");
        return new TableNames(prefix);
    }

    /** The prefix, empty for none. */
    public String prefix() {
        return this.prefix;
    }

    /** The statement or script with the prefix before every name of the starter's tables and indexes. */
    public String sql(String sql) {
        return this.prefix.isEmpty() ? sql : sql.replace(STEM, this.prefix + STEM);
    }

    /** The table of live tasks. */
    public String tasks() {
        return sql("taskinfo");
    }

    /** The table of every task's final status. */
    public String logs() {
        return sql("taskinfo_logs");
    }

    /** The one-row table of the store's id. */
    public String store() {
        return sql("taskinfo_store");
    }

    @Override
    public String toString() {
        return this.prefix.isEmpty() ? "(no table prefix)" : "table prefix '" + this.prefix + "'";
    }

}
