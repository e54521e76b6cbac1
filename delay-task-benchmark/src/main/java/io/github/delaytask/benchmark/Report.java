package io.github.delaytask.benchmark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The figures of one run, one column per system, and what explains them; rendered as Markdown for the terminal
 * and for BENCHMARKS.md alike.
 */
public final class Report {

    private static final String MISSING = "–";

    private final List<String> columns;

    private final Map<String, Map<String, String>> rows = new LinkedHashMap<>();

    private final Map<String, List<String>> setup = new LinkedHashMap<>();

    private final List<String> notes = new ArrayList<>();

    private final Map<String, List<String>> details = new LinkedHashMap<>();

    private final Map<String, Double> kept = new LinkedHashMap<>();

    public Report(List<String> columns) {
        this.columns = List.copyOf(columns);
    }

    /** Put a figure in the table. */
    public synchronized void put(String row, String column, String value) {
        this.rows.computeIfAbsent(row, (key) -> new LinkedHashMap<>()).put(column, value);
    }

    /** Reserve a row, so that rows keep their scenario's order whatever fails. */
    public synchronized void row(String row) {
        this.rows.computeIfAbsent(row, (key) -> new LinkedHashMap<>());
    }

    /** A line under the table. */
    public synchronized void note(String text) {
        this.notes.add(text);
    }

    /** A bullet of a section before the table, such as the machine or a system's configuration. */
    public synchronized void setup(String section, String line) {
        this.setup.computeIfAbsent(section, (key) -> new ArrayList<>()).add(line);
    }

    /** A block of text after the table, such as query plans, shown as it is. */
    public synchronized void detail(String title, String text) {
        this.details.computeIfAbsent(title, (key) -> new ArrayList<>()).add(text);
    }

    /** Keep a figure of one scenario, such as a rate, for a later scenario to compare with. */
    public synchronized void keep(String figure, String column, double value) {
        this.kept.put(figure + "\n" + column, value);
    }

    /** A figure kept by {@link #keep}, or empty if its scenario did not run or did not finish. */
    public synchronized OptionalDouble kept(String figure, String column) {
        Double value = this.kept.get(figure + "\n" + column);
        return (value != null) ? OptionalDouble.of(value) : OptionalDouble.empty();
    }

    public synchronized String markdown(String title) {
        StringBuilder out = new StringBuilder("# ").append(title).append("\n\n");
        this.setup.forEach((section, lines) -> {
            out.append("## ").append(section).append("\n\n");
            lines.forEach((line) -> out.append("- ").append(line).append('\n'));
            out.append('\n');
        });
        out.append("## Results\n\n").append(table()).append('\n');
        if (!this.notes.isEmpty()) {
            out.append("Notes:\n\n");
            this.notes.forEach((note) -> out.append("- ").append(note).append('\n'));
            out.append('\n');
        }
        this.details.forEach((title2, blocks) -> {
            out.append("### ").append(title2).append("\n\n");
            blocks.forEach((block) -> out.append("```text\n").append(block.stripTrailing()).append("\n```\n\n"));
        });
        return out.toString();
    }

    private String table() {
        List<List<String>> cells = new ArrayList<>();
        List<String> header = new ArrayList<>();
        header.add("Figure");
        header.addAll(this.columns);
        cells.add(header);
        this.rows.forEach((row, values) -> {
            List<String> line = new ArrayList<>();
            line.add(row);
            this.columns.forEach((column) -> line.add(values.getOrDefault(column, MISSING)));
            cells.add(line);
        });
        int[] widths = new int[header.size()];
        for (List<String> line : cells) {
            for (int i = 0; i < line.size(); i++) {
                widths[i] = Math.max(widths[i], line.get(i).length());
            }
        }
        StringBuilder table = new StringBuilder();
        for (int r = 0; r < cells.size(); r++) {
            appendLine(table, cells.get(r), widths, r > 0);
            if (r == 0) {
                table.append('|');
                for (int i = 0; i < widths.length; i++) {
                    // the figures are right-aligned
                    table.append(' ').append((i == 0) ? "-".repeat(widths[i]) : "-".repeat(widths[i] - 1) + ":");
                    table.append(" |");
                }
                table.append('\n');
            }
        }
        return table.toString();
    }

    private static void appendLine(StringBuilder table, List<String> line, int[] widths, boolean alignRight) {
        table.append('|');
        for (int i = 0; i < line.size(); i++) {
            String cell = line.get(i);
            String pad = " ".repeat(widths[i] - cell.length());
            table.append(' ').append((i > 0 && alignRight) ? pad + cell : cell + pad).append(" |");
        }
        table.append('\n');
    }

}
