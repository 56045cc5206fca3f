// The console's settings (config/default.yaml `console:`, docs/console.md): the variables that set them,
// and the ways to sign in checked before the gateway starts (console/server.ts checkConsoleConfig).
import t from 'tap';
import { loadConfig } from '../../../config/load.js';
import { checkConsoleConfig } from '../../../console/server.js';

t.test('the console is off by default, and its GATEWAY_ variables set it', async (t) => {
  t.equal(loadConfig(undefined, {}).config.console.port, undefined);
  const { config } = loadConfig(undefined, {
    GATEWAY_CONSOLE_HOST: '0.0.0.0',
    GATEWAY_CONSOLE_PORT: '8082',
    GATEWAY_CONSOLE_URL: 'https://console.example.com',
    GATEWAY_OIDC_ISSUER: 'https://id.example.com',
    GATEWAY_OIDC_CLIENT_ID: 'gateway-console',
  });
  t.match(config.console, {
    host: '0.0.0.0',
    port: 8082,
    public_url: 'https://console.example.com',
    oidc: { issuer: 'https://id.example.com', client_id: 'gateway-console', label: 'Single sign-on' },
  });
});

t.test('a public URL with a path is refused', async (t) => {
  t.throws(
    () => loadConfig(undefined, { GATEWAY_CONSOLE_URL: 'https://example.com/console' }),
    /GATEWAY_CONSOLE_URL: key 'console.public_url' must match/,
  );
});

t.test('the console needs a way to sign in: e-mail links, single sign-on, or both', async (t) => {
  const { config } = loadConfig(undefined, {});
  t.throws(() => checkConsoleConfig(config.console, config.mail), /members need a way to sign in/);
  t.doesNotThrow(() => checkConsoleConfig(config.console, { ...config.mail, url: 'smtp://127.0.0.1:25' }));
  const sso = { ...config.console, oidc: { ...config.console.oidc, issuer: 'https://id.example.com', client_id: 'c' } };
  t.doesNotThrow(() => checkConsoleConfig(sso, config.mail));
});

t.test('single sign-on needs both the issuer and the client id', async (t) => {
  const { config } = loadConfig(undefined, { GATEWAY_OIDC_ISSUER: 'https://id.example.com' });
  t.throws(() => checkConsoleConfig(config.console, config.mail), /set both issuer and client_id/);
});

t.test('an OpenID issuer over plain http is refused unless it is on loopback', async (t) => {
  const withIssuer = (issuer: string) => {
    const { config } = loadConfig(undefined, { GATEWAY_OIDC_ISSUER: issuer, GATEWAY_OIDC_CLIENT_ID: 'c' });
    return () => checkConsoleConfig(config.console, config.mail);
  };
  t.throws(withIssuer('http://id.example.com'), /must be https/);
  t.doesNotThrow(withIssuer('http://127.0.0.1:9000'));
  t.doesNotThrow(withIssuer('https://id.example.com'));
});
