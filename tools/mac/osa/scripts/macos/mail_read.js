// Lists recent unread mail across all accounts, newest first.
// Input: {"limit": 10, "mailbox": name or null (each account's inbox), "preview_chars": 300,
//         "max_chars": 2000}.
// Output: {"messages": [{"from", "subject", "date", "account", "mailbox", "preview"}],
//          "total": <unread in all>, "mailboxes": <mailboxes searched>}
//     or  {"problem": "no_such_mailbox"}.

function run(argv) {
  var input = JSON.parse(argv[0]);
  var wanted = (input.mailbox === null ? "INBOX" : input.mailbox).toLowerCase();
  var mail = Application("Mail");
  var accounts = mail.accounts();
  var sources = [];
  var candidates = [];
  for (var a = 0; a < accounts.length; a++) {
    var names = accounts[a].mailboxes.name();
    for (var b = 0; b < names.length; b++) {
      if (names[b].toLowerCase() !== wanted) {
        continue;
      }
      var unread = accounts[a].mailboxes.byName(names[b]).messages.whose({ readStatus: false });
      var dates = unread.dateReceived();
      sources.push({ unread: unread, account: accounts[a].name(), mailbox: names[b] });
      for (var m = 0; m < dates.length; m++) {
        candidates.push({ source: sources.length - 1, index: m, date: dates[m].getTime() });
      }
    }
  }
  if (sources.length === 0) {
    return JSON.stringify({ problem: "no_such_mailbox" });
  }
  candidates.sort(function (x, y) {
    return y.date - x.date;
  });
  var messages = candidates.slice(0, input.limit).map(function (candidate) {
    var source = sources[candidate.source];
    var message = source.unread[candidate.index];
    return {
      from: clip(message.sender(), input.max_chars),
      subject: clip(message.subject(), input.max_chars),
      date: candidate.date,
      account: clip(source.account, input.max_chars),
      mailbox: clip(source.mailbox, input.max_chars),
      preview: clip(message.content(), input.preview_chars),
    };
  });
  return JSON.stringify({ messages: messages, total: candidates.length, mailboxes: sources.length });
}
