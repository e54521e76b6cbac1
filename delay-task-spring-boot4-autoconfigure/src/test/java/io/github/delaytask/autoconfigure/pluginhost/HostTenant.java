package io.github.delaytask.autoconfigure.pluginhost;

/**
 * The host application's tenant of the current thread, as a request filter would set it.
 */
public final class HostTenant {

    private static final ThreadLocal<Long> CURRENT = new ThreadLocal<>();

    private HostTenant() {
    }

    public static Long current() {
        return CURRENT.get();
    }

    /** Run the given action as the given tenant. */
    public static void runAs(long tenant, Runnable action) {
        Long before = CURRENT.get();
        CURRENT.set(tenant);
        try {
            action.run();
        }
        finally {
            if (before != null) {
                CURRENT.set(before);
            }
            else {
                CURRENT.remove();
            }
        }
    }

}
