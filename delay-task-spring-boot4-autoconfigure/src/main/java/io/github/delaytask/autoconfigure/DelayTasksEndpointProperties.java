package io.github.delaytask.autoconfigure;

import java.util.HashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Who sees tasks' parameters through the {@code delaytasks} endpoint, as {@code management.endpoint.env.show-values}
 * does for the environment's values: parameters are business data (an order, a customer's address) that an operator
 * who may look at the queues need not see.
 */
@ConfigurationProperties("management.endpoint.delaytasks")
public class DelayTasksEndpointProperties {

    /**
     * When to show a task's parameters (in a task, a dead-task page and a change's answer): never, always, or
     * when-authorized (to a user in one of the roles, or to any authenticated user when no role is set).
     */
    private Show showParameters = Show.NEVER;

    /**
     * Roles that may see tasks' parameters when show-parameters is when-authorized; any authenticated user if empty.
     */
    private Set<String> roles = new HashSet<>();

    public Show getShowParameters() {
        return this.showParameters;
    }

    public void setShowParameters(Show showParameters) {
        this.showParameters = showParameters;
    }

    public Set<String> getRoles() {
        return this.roles;
    }

    public void setRoles(Set<String> roles) {
        this.roles = roles;
    }

}
