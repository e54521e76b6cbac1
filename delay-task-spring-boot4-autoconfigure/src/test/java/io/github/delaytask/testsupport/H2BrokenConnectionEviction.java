package io.github.delaytask.testsupport;

import java.sql.SQLException;

import com.zaxxer.hikari.SQLExceptionOverride;

/**
 * Makes Hikari evict a connection to an H2 server that went away, as it does for a real database: their drivers
 * report a lost connection with an SQLState of class 08, which Hikari evicts on, but H2's remote driver uses codes of
 * its own (90067 connection broken, 90121 session closed). Without this, a pool busy enough never to validate its
 * connections hands out a dead one for good. Set with
 * {@code spring.datasource.hikari.exception-override-class-name}.
 */
public class H2BrokenConnectionEviction implements SQLExceptionOverride {

    private static final int CONNECTION_BROKEN = 90067;

    private static final int SESSION_CLOSED = 90121;

    @java.lang.Override
    public SQLExceptionOverride.Override adjudicate(SQLException ex) {
        int code = ex.getErrorCode();
        return (code == CONNECTION_BROKEN || code == SESSION_CLOSED) ? SQLExceptionOverride.Override.MUST_EVICT
                : SQLExceptionOverride.Override.CONTINUE_EVICT;
    }

}
