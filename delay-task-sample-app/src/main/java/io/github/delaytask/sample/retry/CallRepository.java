package io.github.delaytask.sample.retry;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/**
 * Calls in the {@code sample_call} table.
 */
@Repository
class CallRepository {

    private final JdbcTemplate jdbc;

    CallRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Store a new call: pending, no attempt made. */
    long insert(int maxAttempts) {
        KeyHolder keyHolder = new GeneratedKeyHolder();
        this.jdbc.update((connection) -> {
            // Naming the key column makes PostgreSQL return just the id rather than the whole row.
            PreparedStatement statement = connection.prepareStatement(
                    "INSERT INTO sample_call (attempts, max_attempts, status) VALUES (0, ?, ?)", new String[] { "id" });
            statement.setInt(1, maxAttempts);
            statement.setString(2, CallStatus.PENDING.name());
            return statement;
        }, keyHolder);
        return keyHolder.getKey().longValue();
    }

    Optional<Call> find(long id) {
        String sql = "SELECT id, attempts, max_attempts, status FROM sample_call WHERE id = ?";
        return this.jdbc.query(sql, CallRepository::toCall, id).stream().findFirst();
    }

    /**
     * Record an attempt, only if it is the one after the last recorded: should the same attempt run twice, just one
     * run records it, and only that one goes on to schedule the next attempt.
     * @return whether the attempt was recorded
     */
    boolean recordAttempt(long id, int number, CallStatus status) {
        return this.jdbc.update("UPDATE sample_call SET attempts = ?, status = ? WHERE id = ? AND attempts = ?", number,
                status.name(), id, number - 1) == 1;
    }

    private static Call toCall(ResultSet rs, int rowNum) throws SQLException {
        return new Call(rs.getLong("id"), rs.getInt("attempts"), rs.getInt("max_attempts"),
                CallStatus.valueOf(rs.getString("status")));
    }

}
