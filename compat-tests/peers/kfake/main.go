// Command kfakepeer runs franz-go's kfake, an in-process fake Kafka cluster, as a peer broker for the
// compatibility matrix (harness/peer_kfake.py starts it).
//
// It starts one broker on 127.0.0.1:<-port> with Apache Kafka's defaults where kfake's differ
// (auto-created topics allowed, one partition per new topic), prints one ready line to stdout,
//
//	ready <host:port>
//
// and runs until its standard input reaches end of file or it gets SIGTERM/SIGINT. Reading stdin to
// its end means the cluster never outlives the harness that started it, even if the harness is killed.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	port := flag.Int("port", 0, "loopback port to listen on (required)")
	logLevel := flag.String("log-level", "warn", "kfake log level on stderr: none, error, warn, info, debug")
	flag.Parse()
	if *port <= 0 {
		fmt.Fprintln(os.Stderr, "kfakepeer: -port is required")
		os.Exit(2)
	}
	cluster, err := kfake.NewCluster(
		kfake.NumBrokers(1),
		kfake.Ports(*port),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(1),
		kfake.WithLogger(kfake.BasicLogger(os.Stderr, level(*logLevel))),
	)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfakepeer: cannot start cluster: %v\n", err)
		os.Exit(1)
	}
	defer cluster.Close()
	fmt.Printf("ready %s\n", strings.Join(cluster.ListenAddrs(), ","))

	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		done <- struct{}{}
	}()
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-signals
		done <- struct{}{}
	}()
	<-done
}

func level(name string) kfake.LogLevel {
	switch strings.ToLower(name) {
	case "debug":
		return kfake.LogLevelDebug
	case "info":
		return kfake.LogLevelInfo
	case "error":
		return kfake.LogLevelError
	case "none":
		return kfake.LogLevelNone
	default:
		return kfake.LogLevelWarn
	}
}
