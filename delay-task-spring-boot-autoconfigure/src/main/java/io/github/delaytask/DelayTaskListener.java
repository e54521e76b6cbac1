package io.github.delaytask;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of due tasks of one type and priority.
 * <p>
 * The method takes no parameter or one: a {@link DelayTask}, the raw {@code byte[]} parameters, a {@code String}
 * (the parameters as UTF-8), or any other type, read from the parameters as JSON. Its return value is ignored.
 * When it returns, the task is marked executed; when it throws, the task is run again later. Each due task runs on
 * one instance of the application, in the starter's bounded thread pool ({@code delay-task.listener.*}). At most one
 * method may handle a given type and priority. Attributes are plain values; {@code ${...}} placeholders do not apply.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayTaskListener {

    /** Task type handled, from 0 to {@link DelayTask#MAX_TYPE}. */
    int taskType();

    /** Priority handled, from 0 to {@link DelayTask#MAX_PRIORITY}. */
    int priority() default 0;

}
