/**
 * Retries left to the starter: a webhook to a partner that may be down, whose listener throws until the partner is
 * back, so that a notification ends dead after its last attempt and an operator requeues it, from the dashboard.
 */
package io.github.delaytask.sample.webhook;
