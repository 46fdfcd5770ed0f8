//! `cfg-bench serve`: the web app and its local API, on loopback unless told otherwise.

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::args::ServeArgs;
use crate::serve;

pub async fn run(args: ServeArgs) -> Result<u8, String> {
    let host = args.host;
    if !host.is_loopback() {
        if !args.allow_remote {
            return Err(format!(
                "{host} is not a loopback address: pass --allow-remote to expose the runner beyond this machine"
            ));
        }
        eprintln!(
            "warning: listening on {host}: anyone who can reach it and has the token can start load tests from this machine"
        );
    }
    let web_dir = args.web_dir.or_else(|| Some(PathBuf::from("web/dist")).filter(|p| p.join("index.html").exists()));
    serve::serve(serve::ServeOptions {
        bind: SocketAddr::new(host, args.port),
        runs_dir: args.runs_dir,
        web_dir,
        key_envs: args.key_env,
    })
    .await?;
    Ok(0)
}
