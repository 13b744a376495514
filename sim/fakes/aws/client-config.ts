/** Credentials the fakes never look at, so the SDK never goes looking for real ones. */
export const clientConfig = { region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } };
