// The deadline in the customer's own time zone. The server knows no customer's zone and writes it
// in UTC, which stays where this does not run; here the browser writes it again from its instant
// (the <time>'s datetime) in the page's shape: "19:35 GMT+5:30", and " on 3 March" once that is
// not the customer's today. Inlined into the page, which allows it by its hash alone.
(function () {
  'use strict';
  var time = document.getElementById('pay-by-time');
  var by = time && new Date(time.getAttribute('datetime'));
  if (!by || isNaN(by.getTime()) || typeof Intl !== 'object' || !Intl.DateTimeFormat) {
    return;
  }
  var lang = document.documentElement.lang || 'en';
  var parts;
  try {
    // the zone as an offset, which no reader can take for another zone's abbreviation
    parts = local(by, 'shortOffset');
  } catch (notSupported) {
    try {
      parts = local(by, 'short');
    } catch (noIntl) {
      return;
    }
  }
  if (!parts.hour || !parts.minute || !parts.timeZoneName) {
    return;
  }
  var text = parts.hour + ':' + parts.minute + ' ' + parts.timeZoneName;
  if (by.toDateString() !== new Date().toDateString()) {
    text += ' on ' + parts.day + ' ' + parts.month;
  }
  time.textContent = text;

  function local(instant, zoneName) {
    var format = new Intl.DateTimeFormat(lang, {hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
      day: 'numeric', month: 'long', timeZoneName: zoneName});
    var named = {};
    format.formatToParts(instant).forEach(function (part) {
      named[part.type] = part.value;
    });
    return named;
  }
})();
