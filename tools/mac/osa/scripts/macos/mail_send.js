// Sends a mail, or saves it as a draft and opens it. Input: {"to": [addresses], "cc": [...],
// "bcc": [...], "subject", "body", "draft": bool}.
// Output: {"sent": bool} or {"drafted": true}.

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
    return JSON.stringify({ drafted: true });
  }
  return JSON.stringify({ sent: message.send() === true });
}
