package io.github.delaytask.store.mybatis;

import java.util.Locale;

/**
 * The databases whose SQL differs where it matters: the clock, and the single-statement hot paths of PostgreSQL.
 */
enum Dialect {

    POSTGRESQL, MYSQL, STANDARD;

    static Dialect of(String productName) {
        String product = (productName != null) ? productName.toLowerCase(Locale.ROOT) : "";
        if (product.contains("postgres")) {
            return POSTGRESQL;
        }
        return (product.contains("mysql") || product.contains("mariadb")) ? MYSQL : STANDARD;
    }

}
