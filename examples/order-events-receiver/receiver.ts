import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

type OrderEvent = { type: string; data: { orderId: string } };
const webhook = new Webhook(process.env.ORDER_EVENTS_SECRET!);
createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  try {
    const event = webhook.verify(body, req.headers as Record<string, string>) as OrderEvent;
    console.log(req.headers['webhook-id'], event.type, event.data.orderId); // act once per webhook-id
    res.writeHead(204).end();
  } catch {
    res.writeHead(400).end('signature not verified');
  }
}).listen(Number(process.argv[2]), '127.0.0.1');
