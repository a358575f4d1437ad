// Fetches from a shared worker: its requests do not belong to any page.
const S = new URL(self.location.href).searchParams.get('s');
const R = S.replace('127.0.0.1', 'rebind.example');
const quiet = (url, options) => fetch(url, options).catch(() => null);
quiet('/marker/shared-worker').then(() => Promise.all([
  quiet(S + '/secret-shared-direct', { mode: 'no-cors' }),
  quiet(R + '/secret-shared-rebind', { mode: 'no-cors' }),
  quiet('/redirect?to=' + encodeURIComponent(S + '/secret-shared-redirect')),
  quiet('http://[::ffff:127.0.0.1]:' + new URL(S).port + '/secret-shared-mapped', { mode: 'no-cors' }),
]));
