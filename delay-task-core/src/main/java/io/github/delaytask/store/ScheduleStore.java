package io.github.delaytask.store;

import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The stored recurring schedules: the table {@code taskinfo_schedule}, on the task store's data source, so that a
 * schedule's next time moves on in the transaction that stores the task of its current one. Every change checks the
 * row's version. Public for wiring.
 */
public interface ScheduleStore {

    /** Every schedule, by name. */
    List<StoredSchedule> findAll();

    /** The schedule of the given name, or null. */
    @Nullable StoredSchedule find(String name);

    /** The schedules not paused whose next time is at or before {@code until}, epoch milliseconds. */
    List<StoredSchedule> findDue(long until);

    /**
     * Store a new schedule, at the row's version.
     * @return false if a schedule has its name
     */
    boolean insert(StoredSchedule schedule);

    /**
     * Write the given row over the stored one of its name, if that is still at the row's version; the version then
     * moves on by one.
     * @return false if the schedule was changed or removed meanwhile
     */
    boolean update(StoredSchedule schedule);

    /**
     * Remove the schedule of the given name, if it is still at the given version.
     * @return false if it was changed or removed meanwhile
     */
    boolean delete(String name, int version);

    /**
     * Run the work in a transaction of its own on the task store's data source, committed when it returns, whatever
     * transaction the caller has: a retry after a lost race then reads what the winner committed.
     */
    <T> T inTransaction(Supplier<T> work);

    /**
     * What the schema lacks for schedules: empty if nothing, else the statement that adds it.
     * @throws org.springframework.dao.DataAccessException if the database could not be asked
     */
    List<String> missingSchema();

}
