// Sends a mail, or saves it as a draft and opens it. Input: {"to": [addresses], "cc": [...],
// "bcc": [...], "subject", "body", "draft": bool, "max_chars": n}.
// Output: {"sent": bool, "started": <ms when it was handed over>} or {"drafted": true,
// "found": the draft read back, {"subject", "to", "cc", "bcc", "body_length"}, or null}.
// Mail moves a sent message to Sent on its own time: mail_sent.js looks for it there.

function run(argv) {
  var input = JSON.parse(argv[0]);
  var mail = Application("Mail");
  var message = mail.OutgoingMessage({
    subject: input.subject,
    content: input.body,
    visible: input.draft,
  });
  mail.outgoingMessages.push(message);
  input.to.forEach(function (address) {
    message.toRecipients.push(mail.Recipient({ address: address }));
  });
  input.cc.forEach(function (address) {
    message.ccRecipients.push(mail.CcRecipient({ address: address }));
  });
  input.bcc.forEach(function (address) {
    message.bccRecipients.push(mail.BccRecipient({ address: address }));
  });
  if (input.draft) {
    try {
      message.save();
    } catch (error) {
      // Mail keeps an open compose window as a draft even when it cannot save it right away.
    }
    mail.activate();
    return JSON.stringify({ drafted: true, found: readBack(message, input.max_chars) });
  }
  var started = Date.now();
  return JSON.stringify({ sent: message.send() === true, started: started });
}

// The outgoing message as Mail holds it now, or null when Mail no longer has it.
function readBack(message, limit) {
  try {
    var content = message.content();
    return {
      subject: clip(message.subject(), limit),
      to: message.toRecipients.address(),
      cc: message.ccRecipients.address(),
      bcc: message.bccRecipients.address(),
      body_length: typeof content === "string" ? content.length : 0,
    };
  } catch (error) {
    return null;
  }
}
