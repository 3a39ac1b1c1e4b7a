/**
 * The longest address the sign-up takes: the schema's limit on the server and the field's `maxlength` in the browser.
 * A module of its own so the dialog's chunk shares nothing with the page's (one file fewer to load for `/`).
 */
export const EMAIL_MAX_LENGTH = 255;
