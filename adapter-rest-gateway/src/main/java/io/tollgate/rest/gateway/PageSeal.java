package io.tollgate.rest.gateway;

/**
 * Sealing of what the checkout page hands to the browser to bring back (a refused form in its
 * redirect): encrypted and authenticated under the deployment's key, so that the customer's
 * next request may reach any instance, and nobody can read it or make one up.
 */
public interface PageSeal {

  /** {@code plaintext} sealed for {@code context}, fit for a URL's query. */
  String seal(String context, String plaintext);

  /** What was sealed for {@code context}; null for anything this deployment did not seal for it. */
  String open(String context, String sealed);
}
