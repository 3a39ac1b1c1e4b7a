import { createContext, useContext } from "react";

/** The CSP nonce of the response being rendered; travels through context, never through loader data. */
export const NonceContext = createContext<string | undefined>(undefined);

export const useNonce = () => useContext(NonceContext);
