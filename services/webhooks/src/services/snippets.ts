/**
 * `GET /webhooks/code_snippets`: how to receive a delivery and verify its signature (Standard Webhooks) in Node,
 * Python, PHP and curl. The secret is a placeholder: it is shown once, when the webhook is created or rotated.
 */
export function codeSnippets(): { node: string; python: string; php: string; curl: string } {
  return {
    node: `// npm: none (node:crypto). Express example.
const crypto = require('node:crypto');
const express = require('express');
const SECRET = process.env.WEBHOOK_SECRET; // whsec_...

function verify(req) {
  const id = req.header('webhook-id');
  const ts = req.header('webhook-timestamp');
  const sigs = (req.header('webhook-signature') || '').split(' ');
  if (!id || !ts || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const key = Buffer.from(SECRET.replace(/^whsec_/, ''), 'base64');
  const expected = crypto.createHmac('sha256', key).update(\`\${id}.\${ts}.\${req.body}\`).digest('base64');
  return sigs.some((s) => {
    const [v, sig] = s.split(',');
    return v === 'v1' && sig.length === expected.length && crypto.timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
  });
}

const app = express();
app.post('/webhook', express.text({ type: '*/*' }), (req, res) => {
  if (!verify(req)) return res.status(401).end();
  const event = JSON.parse(req.body); // deduplicate on req.header('webhook-id'): retries keep it
  console.log(event.type, event);
  res.status(204).end();
});
app.listen(3000);
`,
    python: `# pip install flask
import base64, hashlib, hmac, os, time
from flask import Flask, request, abort

SECRET = os.environ["WEBHOOK_SECRET"]  # whsec_...
app = Flask(__name__)

def verify(body: bytes, headers) -> bool:
    msg_id, ts = headers.get("webhook-id"), headers.get("webhook-timestamp")
    if not msg_id or not ts or abs(time.time() - int(ts)) > 300:
        return False
    key = base64.b64decode(SECRET.removeprefix("whsec_"))
    expected = base64.b64encode(hmac.new(key, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()).decode()
    return any(hmac.compare_digest(s.split(",", 1)[1], expected) for s in headers.get("webhook-signature", "").split() if s.startswith("v1,"))

@app.post("/webhook")
def webhook():
    if not verify(request.get_data(), request.headers):
        abort(401)
    event = request.get_json()  # deduplicate on the webhook-id header: retries keep it
    print(event["type"], event)
    return "", 204
`,
    php: `<?php
$secret = getenv('WEBHOOK_SECRET'); // whsec_...
$body = file_get_contents('php://input');
$id = $_SERVER['HTTP_WEBHOOK_ID'] ?? '';
$ts = $_SERVER['HTTP_WEBHOOK_TIMESTAMP'] ?? '';
$sigs = explode(' ', $_SERVER['HTTP_WEBHOOK_SIGNATURE'] ?? '');
if ($id === '' || abs(time() - (int) $ts) > 300) { http_response_code(401); exit; }
$key = base64_decode(preg_replace('/^whsec_/', '', $secret));
$expected = base64_encode(hash_hmac('sha256', "$id.$ts.$body", $key, true));
$ok = false;
foreach ($sigs as $s) {
    [$v, $sig] = array_pad(explode(',', $s, 2), 2, '');
    if ($v === 'v1' && hash_equals($expected, $sig)) { $ok = true; }
}
if (!$ok) { http_response_code(401); exit; }
$event = json_decode($body, true); // deduplicate on webhook-id: retries keep it
error_log($event['type']);
http_response_code(204);
`,
    curl: `# What a delivery looks like (sign a body yourself to test your endpoint):
SECRET='whsec_...'; ID="msg_$(date +%s)"; TS=$(date +%s); BODY='{"type":"message_status_change","status":"delivered"}'
SIG=$(printf '%s' "$ID.$TS.$BODY" | openssl dgst -sha256 -mac HMAC -macopt hexkey:$(printf '%s' "\${SECRET#whsec_}" | base64 -d | xxd -p -c 256) -binary | base64)
curl -X POST https://your.server/webhook \\
  -H 'content-type: application/json' \\
  -H "webhook-id: $ID" -H "webhook-timestamp: $TS" -H "webhook-signature: v1,$SIG" \\
  --data "$BODY"
`,
  };
}
