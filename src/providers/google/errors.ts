// Google's own refusals, which only its client throws and only its pacing and check read.

/**
 * The embed flow's own quota is spent on this route (its token says
 * USER_TYPE_EMBED_OVER_QUOTA): a wait on the route's embed pacer, never a
 * failure, and never an empty list taken as Google's answer.
 */
export class EmbedOverQuotaError extends Error {
  override name = 'EmbedOverQuotaError';
}

/**
 * Google answered a route with its EU consent page (a redirect to
 * consent.google.com, or its "Before you continue" HTML): not a block and not
 * a change of Google. The route is set aside until the operator configures a
 * consent cookie for it (TRENDS_CONSENT_COOKIES); the request goes to another.
 */
export class ConsentRequiredError extends Error {
  override name = 'ConsentRequiredError';
  constructor(
    message: string,
    /** The route's configured consent cookie was sent and still answered with the consent page. */
    readonly cookieRefused = false,
  ) {
    super(message);
  }
}
