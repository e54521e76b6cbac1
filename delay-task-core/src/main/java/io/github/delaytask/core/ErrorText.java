package io.github.delaytask.core;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * The text of a failure as {@code last_error} keeps it: a stack trace that every database accepts. PostgreSQL
 * refuses U+0000 in text, and a refused error text would roll back the very update that records the failure, so
 * the task would run again after every lease, forever.
 */
final class ErrorText {

    /** The length of the {@code last_error} column. */
    static final int MAX_LENGTH = 2000;

    private ErrorText() {
    }

    /** The stack trace of a failure, made safe to store and cut to the column's length. */
    static String of(Throwable error) {
        StringWriter trace = new StringWriter();
        error.printStackTrace(new PrintWriter(trace));
        return safe(trace.toString());
    }

    /**
     * What to store when the database refused even the safe text: the failure's class alone, which is plain ASCII.
     */
    static String withoutMessage(Throwable error, Throwable refusal) {
        return error.getClass().getName() + " (its message could not be stored: " + refusal.getClass().getSimpleName()
                + ")";
    }

    static String safe(String text) {
        StringBuilder safe = new StringBuilder(Math.min(text.length(), MAX_LENGTH));
        for (int i = 0; i < text.length() && safe.length() < MAX_LENGTH; i++) {
            char c = text.charAt(i);
            if (c == '\u0000') {
                safe.append("\\0");
            }
            else if (Character.isHighSurrogate(c)) {
                // a pair is kept whole or not at all: half of one is not text either
                if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))
                        && safe.length() + 2 <= MAX_LENGTH) {
                    safe.append(c).append(text.charAt(++i));
                }
                else {
                    safe.append('?');
                }
            }
            else if (Character.isLowSurrogate(c)) {
                safe.append('?');
            }
            else {
                safe.append(c);
            }
        }
        return (safe.length() > MAX_LENGTH) ? safe.substring(0, MAX_LENGTH) : safe.toString();
    }

}
