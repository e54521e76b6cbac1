/**
 * Spring Boot auto-configuration of delay-task and its configuration properties.
 */
package io.github.delaytask.autoconfigure;
