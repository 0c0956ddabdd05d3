"""The dashboard's style sheet and script, inlined in each page (no
library, no build step).

The script draws each cell's heat map on a canvas (one square per node,
coloured by its fullest resource; hover names the node, a click opens
it) and, every ``data-refresh`` milliseconds, asks the data API for what
changed (``If-None-Match``: a 304 when nothing did) and updates the
usage bars, their numbers, the server counts and the heat maps in place.
"""

CSS = """
body{font:13px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#263238;color:#fff;padding:6px 12px;display:flex;gap:16px}
header a{color:#fff;text-decoration:none;font-weight:600}
header .logout{margin-left:auto;font-weight:400}
#live-state{font-size:11px;opacity:.8}
main{padding:8px 16px}
h1{font-size:20px}h2{font-size:16px;margin:16px 0 4px}
h3{font-size:14px;margin:8px 0 4px}h4{font-size:13px;margin:4px 0}
small{color:#666;font-weight:400}
.cell{background:#fff;border:1px solid #ddd;padding:6px 10px;margin:8px 0}
.heatmap{display:block;margin-top:6px;cursor:pointer}
.host{background:#fff;border:1px solid #ddd;margin:6px 0;padding:4px 8px}
.host.state-down,.host.state-disabled{background:#fff4f4}
.badge{font-size:11px;padding:0 6px;border-radius:8px;background:#c8e6c9}
.badge.down{background:#ef9a9a}.badge.disabled{background:#ffe082}
.badge.unknown{background:#ddd}
.node{border-left:3px solid #90a4ae;margin:4px 0 4px 8px;padding-left:8px}
.provider{margin:2px 0}.provider.depth1{margin-left:16px}
.provider.depth2{margin-left:32px}.provider.depth3{margin-left:48px}
.pname small{font-size:10px}
.usage{display:flex;align-items:center;gap:6px;height:16px}
.rc{width:160px;font-family:monospace;font-size:11px}
.bar{display:inline-block;width:220px;height:10px;background:#eceff1;
 border:1px solid #cfd8dc;position:relative}
.fill{display:block;height:100%;background:#66bb6a;transition:width .4s}
.fill.mid{background:#ffca28}.fill.hi{background:#ef5350}
.num{font-family:monospace;font-size:11px}
.traits{font-size:11px}.traits code,.aggs code{font-size:10px}
.aggs{font-size:11px}.servers{margin:2px 0 4px;padding-left:18px}
.muted{color:#888}.error{color:#c62828}
#tooltip{position:fixed;display:none;background:#263238;color:#fff;
 padding:3px 6px;font-size:11px;pointer-events:none;z-index:9}
.login{display:flex;flex-direction:column;gap:8px;max-width:320px}
.login input{width:100%}.hint{color:#666}
.funnel .step,.wrow{display:flex;align-items:center;gap:8px;margin:2px 0}
.fname{width:260px;font-family:monospace;font-size:11px}
.fbar,.wbar{display:inline-flex;width:320px;height:12px;background:#eceff1}
.ffill{display:block;height:100%;background:#42a5f5}
.step.last .ffill{background:#ef5350}.step.last .fname{color:#c62828}
.step.skipped{opacity:.5}.fnum{font-family:monospace;font-size:11px}
.wseg{display:block;height:100%}.wrow.picked .fname{font-weight:700}
.w0{background:#42a5f5}.w1{background:#66bb6a}.w2{background:#ffa726}
.w3{background:#ab47bc}.w4{background:#26c6da}.w5{background:#ec407a}
.w6{background:#8d6e63}.w7{background:#78909c}
.wkey{display:inline-block;color:#fff;padding:0 6px;margin:0 4px 4px 0;
 font-size:11px}
.attempt{border:1px solid #ddd;background:#fff;padding:6px 10px;margin:6px 0}
.query code{font-size:11px;word-break:break-all}
table.facts th{text-align:left;padding-right:12px}
table.allocs td,table.allocs th{border:1px solid #ddd;padding:2px 6px}
.pager a,.pager b{margin-right:4px}
"""

JS = r"""
(function(){
'use strict';
var body=document.body, live=body.getAttribute('data-live');
var tip=document.getElementById('tooltip'), etag=null, state={};
function colour(r){
  var h=Math.round(120*(1-Math.min(1,Math.max(0,r))));
  return 'hsl('+h+',70%,45%)';}
function draw(doc){
  (doc.cells||[]).forEach(function(cell){
    var c=document.querySelector('canvas.heatmap[data-cell="'+
      cell.name+'"]');
    if(!c){return;}
    var n=cell.nodes.length, size=n>2000?4:n>300?8:14, gap=1;
    var cols=Math.max(1,Math.floor(((c.parentNode.clientWidth||800)-4)/
      (size+gap)));
    c.width=cols*(size+gap); c.height=Math.ceil(n/cols)*(size+gap)||size;
    var g=c.getContext('2d');
    cell.nodes.forEach(function(node,i){
      g.fillStyle=node[3]==='up'?colour(node[2]):'#9e9e9e';
      g.fillRect((i%cols)*(size+gap),Math.floor(i/cols)*(size+gap),
        size,size);});
    state[cell.name]={cols:cols,size:size+gap,nodes:cell.nodes};});}
function at(ev){
  var c=ev.target, s=state[c.getAttribute('data-cell')];
  if(!s){return null;}
  var r=c.getBoundingClientRect();
  var i=Math.floor((ev.clientY-r.top)/s.size)*s.cols+
    Math.floor((ev.clientX-r.left)/s.size);
  return s.nodes[i]||null;}
document.addEventListener('mousemove',function(ev){
  if(!tip){return;}
  if(!ev.target.classList||!ev.target.classList.contains('heatmap')){
    tip.style.display='none';return;}
  var n=at(ev);
  if(!n){tip.style.display='none';return;}
  tip.textContent=n[0]+' ('+n[1]+', '+n[3]+'): '+Math.round(n[2]*100)+
    '% full, '+n[4]+' servers';
  tip.style.left=(ev.clientX+12)+'px'; tip.style.top=(ev.clientY+12)+'px';
  tip.style.display='block';});
document.addEventListener('click',function(ev){
  if(!ev.target.classList||!ev.target.classList.contains('heatmap')){return;}
  var n=at(ev);
  if(n){var el=document.getElementById('node-'+n[0]);
    if(el){el.scrollIntoView();}else{location.href='/dashboard?node='+
      encodeURIComponent(n[0]);}}});
function level(p){return p>=90?'hi':p>=60?'mid':'lo';}
function setBar(key,rc,used,cap){
  var pct=cap>0?Math.min(100,100*used/cap):(used?100:0);
  document.querySelectorAll('.bar[data-rp="'+key+'"][data-rc="'+rc+'"]')
    .forEach(function(b){var f=b.firstChild;f.style.width=pct.toFixed(1)+'%';
      f.className='fill '+level(pct);});
  document.querySelectorAll('.num[data-rp="'+key+'"][data-rc="'+rc+'"]')
    .forEach(function(e){e.textContent=used+' / '+cap;});}
function apply(doc){
  Object.keys(doc.usages||{}).forEach(function(rp){
    var u=doc.usages[rp];
    Object.keys(u).forEach(function(rc){setBar(rp,rc,u[rc][0],u[rc][1]);});});
  (doc.cells||[]).forEach(function(cell){
    Object.keys(cell.totals).forEach(function(rc){
      setBar('cell:'+cell.uuid,rc,cell.totals[rc][0],cell.totals[rc][1]);});
    cell.nodes.forEach(function(n){
      var e=document.querySelector('[data-node-servers="'+n[0]+'"]');
      if(e){e.textContent=n[4];}});});
  draw(doc);}
var initial=document.getElementById('initial');
if(initial){draw(JSON.parse(initial.textContent));}
if(!live){return;}
var every=parseInt(body.getAttribute('data-refresh'),10)||2000;
var mark=document.getElementById('live-state'), updates=0;
function poll(){
  var x=new XMLHttpRequest();
  x.open('GET',live);
  if(etag){x.setRequestHeader('If-None-Match',etag);}
  x.onload=function(){
    if(x.status===200){etag=x.getResponseHeader('ETag');updates++;
      apply(JSON.parse(x.responseText));}
    if(mark){mark.textContent='live: '+updates+' updates, '+
      new Date().toLocaleTimeString();
      mark.setAttribute('data-updates',updates);}
    setTimeout(poll,every);};
  x.onerror=function(){if(mark){mark.textContent='live: offline';}
    setTimeout(poll,every*2);};
  x.send();}
setTimeout(poll,every);
})();
"""
