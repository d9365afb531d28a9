import os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from standardwebhooks.webhooks import Webhook
webhook = Webhook(os.environ["ORDER_EVENTS_SECRET"])
class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        try: event = webhook.verify(body, dict(self.headers))
        except Exception: return self.send_error(400, "signature not verified")
        print(self.headers["webhook-id"], event["type"], event["data"]["orderId"], flush=True)  # act once per webhook-id
        self.send_response(204); self.end_headers()
HTTPServer(("127.0.0.1", int(sys.argv[1])), Receiver).serve_forever()
