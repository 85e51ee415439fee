// Credentials never reach the logs: pino redacts these paths in every request log line.
export const logRedaction = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'res.headers["set-cookie"]',
    'req.body.password',
    'req.body.token',
  ],
  censor: '[redacted]',
};
