// Sends on the card that came with the payment as soon as the customer has the page in front of
// them: the page's GET charges nothing, since a link preview, a mail scanner or a browser's
// prefetch may open the link before the customer does, so the charge is this form's POST. Nor
// does the script send it while the page is prerendered (a browser's guess at the next page) or
// out of sight (a tab opened in the background, a preview rendered off screen), where a scanner
// that runs scripts would otherwise charge the card; it sends it once the page is shown. Without
// script, the customer presses its button. Inlined into the page, which allows it by its hash.
(function () {
  'use strict';
  var form = document.getElementById('process-form');
  if (!form) {
    return;
  }
  var sent = false;
  function send() {
    if (sent || document.prerendering || (document.visibilityState && document.visibilityState !== 'visible')) {
      return;
    }
    sent = true;
    form.submit();
  }
  document.addEventListener('visibilitychange', send);
  document.addEventListener('prerenderingchange', send);
  send();
})();
