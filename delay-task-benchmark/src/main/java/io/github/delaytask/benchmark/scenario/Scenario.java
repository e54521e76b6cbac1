package io.github.delaytask.benchmark.scenario;

import io.github.delaytask.benchmark.Report;
import io.github.delaytask.benchmark.system.QueueSystem;

/**
 * One kind of measurement, made on one system at a time.
 */
public interface Scenario {

    /** As on the command line, such as {@code dispatch}. */
    String name();

    /** How its figures are measured, for the report. */
    String definition();

    /** Reserve the scenario's rows, so that the table keeps their order whatever fails. */
    void rows(Report report);

    /** Measure the system and put the figures in the report. */
    void run(QueueSystem system, Report report) throws Exception;

}
