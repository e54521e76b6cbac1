package io.github.delaytask.json;

/**
 * The message of parameters that cannot be read: the type, the kind of failure and where, never the parameters.
 */
final class ReadFailure {

    private ReadFailure() {
    }

    static String describe(String type, Exception failure, int line, int column) {
        return "cannot read them as " + type + ": " + failure.getClass().getSimpleName()
                + ((line >= 0) ? " at line " + line + ", column " + column : "");
    }

}
