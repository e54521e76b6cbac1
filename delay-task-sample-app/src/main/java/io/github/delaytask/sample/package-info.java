/**
 * Sample application of delay-task: the application class, its task types, and the embedded Redis it starts.
 */
package io.github.delaytask.sample;
