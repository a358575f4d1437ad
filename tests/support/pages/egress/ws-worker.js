// WebSockets opened by a dedicated worker.
const S = new URL(self.location.href).searchParams.get('s');
const socket = (url) => { try { new WebSocket(url); } catch (e) { /* refused */ } };
socket('ws://' + self.location.host + '/marker/worker-ws');
socket(S.replace('http:', 'ws:') + '/secret-ws-direct');
socket(S.replace('http:', 'ws:').replace('127.0.0.1', 'rebind.example') + '/secret-ws-rebind');
socket(S.replace('http:', 'wss:') + '/secret-wss');
