package io.github.delaytask.dashboard;

import org.jspecify.annotations.Nullable;

/**
 * Where the page finds the {@code delaytasks} endpoint, and what stops it from using it.
 * @param path the endpoint's path below the servlet's, such as {@code /actuator/delaytasks}, or {@code null} when
 * the page cannot reach it
 * @param writable whether the endpoint takes changes: not when its access is read-only
 * @param problem why the page cannot reach the endpoint, for the page and the start-up log, or {@code null}
 */
record EndpointLink(@Nullable String path, boolean writable, @Nullable String problem) {

    static EndpointLink unreachable(String problem) {
        return new EndpointLink(null, false, problem);
    }

}
