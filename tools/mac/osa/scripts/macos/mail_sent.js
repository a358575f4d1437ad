// Looks in Mail's Sent mailbox for a message just sent: the newest with this subject, sent
// since `since`, addressed to every one of `to`.
// Input: {"subject", "to": [addresses], "since": <ms>, "max_chars": n}.
// Output: {"found": {"id", "message_id", "subject", "to": [addresses], "sent": <ms>,
//          "mailbox", "account"} or null, "looked_at": messages with that subject}.

function run(argv) {
  var input = JSON.parse(argv[0]);
  var mail = Application("Mail");
  var matches = mail.sentMailbox.messages.whose({ subject: input.subject });
  var dates = matches.dateSent();
  var wanted = input.to.map(function (address) {
    return address.toLowerCase();
  });
  var order = [];
  for (var i = 0; i < dates.length; i++) {
    if (dates[i] && dates[i].getTime() >= input.since) {
      order.push({ index: i, date: dates[i].getTime() });
    }
  }
  order.sort(function (a, b) {
    return b.date - a.date;
  });
  for (var k = 0; k < order.length && k < 20; k++) {
    var message = matches[order[k].index];
    var to = message.toRecipients.address().map(function (address) {
      return String(address).toLowerCase();
    });
    var all = wanted.every(function (address) {
      return to.indexOf(address) >= 0;
    });
    if (!all) {
      continue;
    }
    var box = message.mailbox();
    var account = null;
    try {
      account = box.account().name();
    } catch (error) {
      account = null; // a local mailbox belongs to no account
    }
    return JSON.stringify({
      found: {
        id: String(message.id()),
        message_id: clip(message.messageId(), input.max_chars),
        subject: clip(message.subject(), input.max_chars),
        to: to,
        sent: order[k].date,
        mailbox: clip(box.name(), input.max_chars),
        account: clip(account, input.max_chars),
      },
      looked_at: dates.length,
    });
  }
  return JSON.stringify({ found: null, looked_at: dates.length });
}
