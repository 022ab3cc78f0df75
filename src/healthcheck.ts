// The container's HEALTHCHECK (slim images have no curl): exit 0 when /_sandbox/health answers 200.
const port = process.env.PORT || '3000';
const token = process.env.SANDBOX_ADMIN_TOKEN;
const headers: Record<string, string> = token ? { 'sandbox-admin-token': token } : {};

fetch(`http://127.0.0.1:${port}/_sandbox/health`, { headers, signal: AbortSignal.timeout(2500) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
