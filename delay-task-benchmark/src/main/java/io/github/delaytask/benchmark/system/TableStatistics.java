package io.github.delaytask.benchmark.system;

/**
 * What PostgreSQL knows of one table ({@code pg_class}, {@code pg_stat_user_tables}): the planner's row estimate
 * and how the table was read.
 * @param table the table's name
 * @param plannerRows {@code reltuples}: the rows the planner believes the table has (-1: never analyzed)
 * @param rows the rows it has, counted
 * @param seqScans sequential scans so far
 * @param seqRowsRead rows read by sequential scans so far
 * @param indexScans index scans so far
 * @param lastAnalyzed when it was last analyzed, by hand or by autovacuum, or {@code never}
 */
public record TableStatistics(String table, double plannerRows, long rows, long seqScans, long seqRowsRead,
        long indexScans, String lastAnalyzed) {

    /** The scans made between an earlier reading and this one, with this reading's other figures. */
    public TableStatistics since(TableStatistics earlier) {
        return new TableStatistics(this.table, this.plannerRows, this.rows, this.seqScans - earlier.seqScans,
                this.seqRowsRead - earlier.seqRowsRead, this.indexScans - earlier.indexScans, this.lastAnalyzed);
    }

    @Override
    public String toString() {
        String planner = (this.plannerRows < 0) ? "unknown" : String.format("%,.0f", this.plannerRows);
        return String.format("%s: rows %,d (planner: %s), seq scans %,d (%,d rows read), index scans %,d, "
                + "last analyzed %s", this.table, this.rows, planner, this.seqScans, this.seqRowsRead,
                this.indexScans, this.lastAnalyzed);
    }

}
