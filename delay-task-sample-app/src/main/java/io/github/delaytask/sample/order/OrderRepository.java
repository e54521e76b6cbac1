package io.github.delaytask.sample.order;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/**
 * Orders in the {@code sample_order} table.
 */
@Repository
class OrderRepository {

    private final JdbcTemplate jdbc;

    OrderRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    long insert(OrderStatus status) {
        KeyHolder keyHolder = new GeneratedKeyHolder();
        this.jdbc.update((connection) -> {
            // Naming the key column makes PostgreSQL return just the id rather than the whole row.
            PreparedStatement statement = connection.prepareStatement("INSERT INTO sample_order (status) VALUES (?)",
                    new String[] { "id" });
            statement.setString(1, status.name());
            return statement;
        }, keyHolder);
        return keyHolder.getKey().longValue();
    }

    void setTaskId(long id, long taskId) {
        this.jdbc.update("UPDATE sample_order SET task_id = ? WHERE id = ?", taskId, id);
    }

    Optional<Order> find(long id) {
        String sql = "SELECT id, status, task_id FROM sample_order WHERE id = ?";
        return this.jdbc.query(sql, OrderRepository::toOrder, id).stream().findFirst();
    }

    /**
     * Change the status of an order only if it still has the expected one. Paying and the timeout may come at the
     * same moment; this single conditional update lets exactly one of them win, with no lock held in between.
     * @return whether the status was changed
     */
    boolean changeStatus(long id, OrderStatus expected, OrderStatus status) {
        return this.jdbc.update("UPDATE sample_order SET status = ? WHERE id = ? AND status = ?", status.name(), id,
                expected.name()) == 1;
    }

    long countByStatus(OrderStatus status) {
        return this.jdbc.queryForObject("SELECT COUNT(*) FROM sample_order WHERE status = ?", Long.class,
                status.name());
    }

    private static Order toOrder(ResultSet rs, int rowNum) throws SQLException {
        return new Order(rs.getLong("id"), OrderStatus.valueOf(rs.getString("status")),
                rs.getObject("task_id", Long.class));
    }

}
