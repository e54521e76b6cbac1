package io.github.delaytask.faults;

import java.time.Duration;
import javax.sql.DataSource;

import io.github.delaytask.DelayTask;
import io.github.delaytask.DelayTaskService;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Adds {@code fault.add-tasks} tasks of the {@link RecordingListener}'s type once the application runs, each with a
 * delay of {@code fault.add-delay}, so that a worker adds tasks on its own clock. Before each add, the database's
 * time goes into {@code fault_adds}: the task is due no earlier than that plus its delay, whatever the worker's clock
 * says.
 */
class DelayedAdder implements ApplicationRunner {

    static final String TASKS = "fault.add-tasks";

    static final String DELAY = "fault.add-delay";

    private final DelayTaskService service;

    private final JdbcTemplate jdbc;

    private final int tasks;

    private final Duration delay;

    DelayedAdder(DelayTaskService service, DataSource dataSource, Environment environment) {
        this.service = service;
        this.jdbc = new JdbcTemplate(dataSource);
        this.tasks = environment.getProperty(TASKS, Integer.class, 0);
        this.delay = environment.getProperty(DELAY, Duration.class, Duration.ZERO);
    }

    @Override
    public void run(ApplicationArguments args) {
        String now = RecordingListener.databaseNow(this.jdbc);
        for (int i = 0; i < this.tasks; i++) {
            Long addedAt = this.jdbc.queryForObject("SELECT " + now, Long.class);
            long taskId = this.service.addTask(DelayTask.builder(RecordingListener.TASK_TYPE).delay(this.delay).build());
            this.jdbc.update("INSERT INTO fault_adds (task_id, added_at) VALUES (?, ?)", taskId, addedAt);
        }
    }

}
