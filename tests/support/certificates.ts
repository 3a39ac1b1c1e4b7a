// Certificates for a relay on loopback, made with openssl as an owner (or Debian's Postfix) makes them: an authority
// with a certificate it signed for a name, and a self-signed one such as Postfix's snakeoil.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { OPENSSL } from "./reverse-proxy";

export interface KeyAndCertificate {
  key: string;
  cert: string;
}

const openssl = (args: string[], cwd: string) => execFileSync(OPENSSL, args, { cwd, stdio: "pipe" });
const read = (dir: string, name: string) => readFileSync(path.join(dir, name), "utf8");

/** A self-signed certificate for `name`, made in `dir`. */
export function selfSigned(dir: string, name: string): KeyAndCertificate {
  openssl(
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", `/CN=${name}`].concat([
      "-addext",
      `subjectAltName=DNS:${name}`,
      "-keyout",
      "self.key",
      "-out",
      "self.crt",
    ]),
    dir,
  );
  return { key: read(dir, "self.key"), cert: read(dir, "self.crt") };
}

/** An authority of our own (its certificate: `ca`) and a certificate it signed for `name`, made in `dir`. */
export function signedBy(dir: string, name: string): KeyAndCertificate & { ca: string } {
  openssl(
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Test Authority"].concat([
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
    ]),
    dir,
  );
  openssl(
    ["req", "-newkey", "rsa:2048", "-nodes", "-subj", `/CN=${name}`, "-keyout", "leaf.key", "-out", "leaf.csr"],
    dir,
  );
  execFileSync("sh", ["-c", `printf 'subjectAltName=DNS:${name}\\n' > leaf.ext`], { cwd: dir });
  openssl(
    ["x509", "-req", "-in", "leaf.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2"].concat([
      "-extfile",
      "leaf.ext",
      "-out",
      "leaf.crt",
    ]),
    dir,
  );
  return { key: read(dir, "leaf.key"), cert: read(dir, "leaf.crt"), ca: read(dir, "ca.crt") };
}
