import { describe, expect, it } from 'vitest';
import { loadConfig, unknownEnvNames } from '../../shared/config.ts';

function refusal(env: NodeJS.ProcessEnv): Error {
  try {
    loadConfig(env);
  } catch (err) {
    return err as Error;
  }
  throw new Error('the configuration was accepted');
}

describe('configuration from the environment', () => {
  it('reads booleans as true/false/1/0/yes/no, in any case', () => {
    for (const [text, value] of [
      ['true', true],
      ['1', true],
      ['yes', true],
      ['YES', true],
      ['false', false],
      ['0', false],
      ['no', false],
    ] as const) {
      expect([text, loadConfig({ SLUICE_LOG_PRETTY: text }).logPretty]).toEqual([text, value]);
    }
  });

  it('refuses any other boolean text, naming the variable and what it takes', () => {
    const error = refusal({ SLUICE_LOG_PRETTY: 'on' });
    expect(error).toMatchObject({ code: 'INVALID_CONFIG', details: { variable: 'SLUICE_LOG_PRETTY' } });
    expect(error.message).toBe('SLUICE_LOG_PRETTY must be true, false, 1, 0, yes or no');
  });

  it('names the environment variable of a refused value, not the internal path', () => {
    const error = refusal({ SLUICE_PORT: 'eighty', SLUICE_FLUSH_MAX_RETRIES: '-1' });
    expect(error.message).toContain('SLUICE_PORT: expected a whole number');
    expect(error.message).toContain('SLUICE_FLUSH_MAX_RETRIES:');
    expect(error.message).not.toMatch(/\bport:|flush\.maxRetries/);
  });

  it('names the variable and the element inside a JSON setting', () => {
    const error = refusal({
      SLUICE_TOKENS: JSON.stringify([{ name: 'a', sha256: 'nothex', scopes: ['read'] }]),
    });
    expect(error.message).toContain('SLUICE_TOKENS[0].sha256: lower-case hex sha256');
  });

  it('lists SLUICE_* variables that no setting reads, and none that one does', () => {
    const env = {
      SLUICE_PROT: '80',
      SLUICE_PORT: '80',
      SLUICE_TOKEN: 'x',
      HOME: '/root',
      SLUICE_LOG_PRETY: '1',
    };
    expect(unknownEnvNames(env)).toEqual(['SLUICE_LOG_PRETY', 'SLUICE_PROT']);
  });
});
