/**
 * Spring Boot auto-configuration of delay-task and its configuration properties.
 */
@NullMarked
package io.github.delaytask.autoconfigure;

import org.jspecify.annotations.NullMarked;
